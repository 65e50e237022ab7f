examples/ffn.sg examples/transformer.sg
