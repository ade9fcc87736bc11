"""Opening a seat to the internet: tunnel providers and their stand-ins."""
