examples/auto_mlp.sg --devices 1099511627776
