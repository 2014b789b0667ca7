robustify examples/robustify/voting/config-pareto.json
