examples/auto_mlp.sg --memory 100MiB --bind b=32768
