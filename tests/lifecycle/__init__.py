"""Emulations of the upstream algorithms that decide what happens when a rendered JobSet is applied
again (three-way JSON merge patch, server-side apply, Kueue's admission, the Argo CD sync), and the
tests that prove docs/lifecycle.md with them. Each module cites its upstream file."""
