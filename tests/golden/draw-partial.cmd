examples/layout.sg --draw x=$out/draw-partial-x.svg --draw nothing=$out/draw-partial-n.svg --dot $out/draw-partial.dot
