robustify examples/robustify/abp/robustify.yaml
