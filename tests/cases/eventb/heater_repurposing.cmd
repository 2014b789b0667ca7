eventb examples/eventb/heater.yaml --robustify repurposing
