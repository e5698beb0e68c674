"""Judge sensitivity and CT-FineBench sensitivity sets: variants of references, judged.

Judge sensitivity follows "VERT: Reliable LLM Judges for Radiology Report Evaluation" (arXiv 2604.03376),
section 4.2 and appendix F; the sensitivity sets (paraphrases and attribute edits) follow "CT-FineBench: A
Diagnostic Fidelity Benchmark for Fine-Grained Evaluation of CT Report Generation" (arXiv 2604.24001), section 5.2.
"""
