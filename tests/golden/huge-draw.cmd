tests/golden/data/huge-draw.sg --draw y=$out/huge-draw-y.svg
