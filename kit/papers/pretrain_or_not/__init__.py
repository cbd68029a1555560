"""*To Pretrain or Not to Pretrain* (Wang et al., ACL 2020): notebook 01's experiment.

LSTM-n-k from scratch vs a fine-tuned transformer as labelled data grows, LSTM + pretrained embeddings, inference time.
"""
