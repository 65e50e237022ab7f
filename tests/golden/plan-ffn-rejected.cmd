examples/ffn.sg --bind b=12
