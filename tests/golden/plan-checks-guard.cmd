tests/golden/data/plan-checks.sg --bind b=4,s=256,t=384,u=1
