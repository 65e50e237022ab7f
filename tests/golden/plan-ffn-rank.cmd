examples/ffn.sg --bind b=40 --rank 3
