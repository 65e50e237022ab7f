tests/golden/data/plan-checks.sg --bind b=6,s=128,t=256,u=1
