"""*NLP From Scratch Without Large-Scale Pretraining* (TLM; Yao et al., ICML 2022): notebook 02's experiment.

BM25 retrieval with task texts as queries, joint MLM + task training from scratch (rho1, rho2), two stages, ablations.
"""
