robustness examples/robustness/fortis-tests/abp_no_dev.yaml --expand --max-states 120 --print 1
