"""SerBERTus' published numbers (dev set unless marked test; BERT-base), as data, for the tables beside ours.

>>> float(TABLE6.loc["CerBERTus k=2", "avg"]), float(TABLE7.loc["ensemble, 7-9 models per task", "avg test"])
(76.4, 78.61)
"""

import pandas as pd

#: The paper's three tasks, by the slot names the kit uses.
TASKS = {"sst": "SST-5", "qqp": "QQP", "sts": "STS-B"}

#: Table 6: architectures, no weight decay, no layer decay, no SMART; best dev score of each task (k = task layers).
TABLE6 = pd.DataFrame(
    {
        "QQP": [88.9, 89.0, 88.6, 88.8, 88.9, 89.4],
        "STS": [87.0, 87.9, 87.6, 87.6, 82.5, 87.2],
        "SST": [51.6, 52.4, 51.6, 51.9, 52.1, 52.4],
        "avg": [75.8, 76.4, 75.9, 76.1, 74.5, 76.4],
        "batch": [32, 24, 20, 16, 32, 8],
    },
    index=["multi-BERT", "CerBERTus k=2", "CerBERTus k=4", "CerBERTus k=6", "triple-BERT", "multi + triple"],
)

#: Table 7: the best single models and ensembles (SMART lambda, layer decay, parameters), dev and test.
TABLE7 = pd.DataFrame(
    {
        "SMART": ["12", "15", "12", "10 / 12", "several"],
        "decay": ["0.95", "0.95", "0.95", "1.0 / 0.95", "several"],
        "params": ["110M", "138M", "153M", "386M", "2.6B+"],
        "SST": [53.32, 52.41, 53.04, 54.59, 55.85],
        "STS": [89.38, 89.86, 89.99, 89.93, 90.45],
        "QQP": [88.67, 89.64, 89.72, 90.27, 90.94],
        "avg": [77.12, 77.30, 77.58, 78.26, 79.08],
        "avg test": [None, None, None, 78.45, 78.61],
    },
    index=["multi-BERT", "CerBERTus k=2", "CerBERTus k=3", "best model per task", "ensemble, 7-9 models per task"],
)

#: Table 4 (SST accuracy, mean over seeds): one learning rate vs layer-wise decay.
TABLE4 = pd.Series(
    {"all layers 1e-5": 51.7, "layer decay 0.95": 52.4, "layer decay 0.9": 52.2, "embeddings frozen": 51.3}
)

#: Figures 4 and 5 (read off the plots and the text).
FIGURE4_SMART = "SST: lambda_s in [1, 10] performs well; lambda_s >= 10 needs more than 10 epochs to converge"
FIGURE5_MLM = (
    "SST: further MLM pretraining at 1e-5 hurt (more steps, worse); at 5e-6 a small gain near 16k steps; "
    "QQP: best after ~66k steps; STS: small gain within 3k steps"
)

#: What the paper reports for each comparison that notebook 04's sentences make, in the paper's words.
SAYS = {
    "smart": "lambda_s in [1, 10] works well on SST; its best single models used 10-15 (Table 7: k=2 CerBERTus 15)",
    "llrd": "0.95: +0.7 on SST, 0.9: +0.5",
    "mlm": "hurt on SST at 1e-5; helped QQP and STS a little",
    "multi": "75.8 vs 74.5 avg of best dev scores, +1.3 (triple's STS was low)",
    "cerbertus": "k=2: +0.6, k=4: +0.1, k=6: +0.3 (of 12 layers)",
    "ensemble": "7-9 models per task: 78.61 vs 78.45 test, +0.16",
}

#: The paper's effects each verdict row of notebook 04 is read against, per task (a fraction: accuracy, or Pearson's r
#: for STS), where it gives a number: layer decay 0.95 +0.7 on SST (Table 4); multi-BERT - triple-BERT and CerBERTus
#: k=2 - multi-BERT from Table 6's best dev scores (our k stands for its k=2: smoke's k=1 of 3 layers and medium's k=2
#: of 6 share two thirds of the encoder, its k=2 of 12 five sixths; QQP's multi - triple is 0.0, no effect to look
#: for); the ensemble - the best model per task from Table 7. SMART and further MLM pretraining: directions only
#: (its Figures 4 and 5).
EFFECTS = {
    "llrd": {"sst": 0.007},
    "multi": {"sst": -0.005, "sts": 0.045},
    "cerbertus": {"sst": 0.008, "qqp": 0.001, "sts": 0.009},
    "ensemble": {"sst": 0.0126, "qqp": 0.0067, "sts": 0.0052},
}

#: The paper's parameter counts (BERT-base), for the sizes table.
SIZES = "multi-BERT 110M, CerBERTus k=2 138M, k=3 153M, triple-BERT ~330M"
