examples/ffn.sg --bind b
