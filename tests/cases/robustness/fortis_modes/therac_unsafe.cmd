robustness examples/robustness/fortis-tests/therac_unsafe.yaml --unsafe
