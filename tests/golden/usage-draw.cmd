examples/ffn.sg --draw h1
