examples/tp_mlp.sg
