examples/megatron.sg
