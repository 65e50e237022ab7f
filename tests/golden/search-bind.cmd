examples/auto_mlp.sg --bind b=4096
