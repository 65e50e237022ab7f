tests/golden/data/mlp-cap.sg --memory 415000000 --bind b=16384
