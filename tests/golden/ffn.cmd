examples/ffn.sg
