examples/ffn.sg --dot
