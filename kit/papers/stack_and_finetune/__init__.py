"""*To Tune or Not to Tune? How About the Best of Both Worlds?* (Wang et al., 2019, arXiv 1907.05338): notebook 03.

Finetune-only, stack-only and stack-and-finetune on tagging, classification and sentence pairs.
"""
