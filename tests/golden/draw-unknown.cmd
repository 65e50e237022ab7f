examples/ffn.sg --draw nothing=$out/draw-unknown.svg
