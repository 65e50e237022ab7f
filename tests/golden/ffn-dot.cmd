examples/ffn.sg --dot $out/ffn-dot.dot
