"""*SerBERTus: A SMART Three-Headed BERT Ensemble* (Hayes, Stanford CS224N): multitask BERT with SMART, layer-wise
learning-rate decay, CerBERTus, further MLM pretraining and dev-gated ensembles. Notebook 04.
"""
