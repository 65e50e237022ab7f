examples/layout.sg --rank 5
