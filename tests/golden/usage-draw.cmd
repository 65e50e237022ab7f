examples/ffn.sg --draw h1=h1.svg
