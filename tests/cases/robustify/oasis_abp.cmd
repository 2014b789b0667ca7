robustify examples/robustify/abp/config-oasis.json
