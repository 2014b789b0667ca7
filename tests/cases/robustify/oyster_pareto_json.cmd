robustify examples/robustify/oyster/config-pareto.json --format json
