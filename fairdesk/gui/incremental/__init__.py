"""The Incremental tab: run a streaming policy on chosen items in the background and browse
each item's add/revoke timeline while its audio plays.
"""
