SELECT model FROM gpus;
