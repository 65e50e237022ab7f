examples/megatron.sg --auto
