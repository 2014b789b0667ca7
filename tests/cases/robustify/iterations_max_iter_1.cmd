robustify examples/robustify/iterations/config-fast.json --max-iter 1
