examples/ffn.sg --dot=ffn.dot
