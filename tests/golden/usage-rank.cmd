examples/ffn.sg --rank 3
