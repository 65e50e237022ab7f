examples/ffn.sg --devices
