"""*SerBERTus: A SMART Three-Headed BERT Ensemble* (Hayes, Stanford CS224N), notebook 04's paper.

Multitask BERT with SMART, layer-wise learning-rate decay, CerBERTus, further MLM pretraining and dev-gated ensembles.
"""
