robustify examples/robustify/pump/config-pareto.json
