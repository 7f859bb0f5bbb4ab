"""The lab behind ``dualio bench``: what each way of being sync and async costs."""
