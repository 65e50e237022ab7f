examples/transformer.sg
