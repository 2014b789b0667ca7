robustify examples/robustify/pump/config-pareto.json --timeout 1e-9
