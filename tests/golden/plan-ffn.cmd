examples/ffn.sg --bind b=40
