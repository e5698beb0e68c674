"""Layouts of the public datasets whose radiologists scored candidate reports: what GREEN/VERT judges are
measured against (RaTE-Eval, the RadEval expert set, ReXVal). Each module defines one `LAYOUT`."""
