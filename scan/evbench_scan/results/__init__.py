"""A campaign's results directory and what is in it: the files (campaign),
each point's result gathered into records and index.csv (collect), why a
point failed (failures), the host's load around each point (hostload).
Written by run/, read by report/; imports only spec/."""
