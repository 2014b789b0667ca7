robustify examples/robustify/therac25/config-pareto.json --format fsp
