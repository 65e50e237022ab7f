examples/ffn.sg --bind c=3
