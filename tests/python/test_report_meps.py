"""Campaign reports of runs with multi-event fragments (fragment.events > 1):
the Configurations table gains a MEPs/s column beside events/s only when some
run packed events in MEPs, and index.csv keeps its columns either way."""
import synthetic
from test_report import csv_rows, md_table, report


def with_meps(doc, p, meps_per_second):
    doc["config"]["fragment"]["events"] = p
    doc["results"].update(packing_factor=p, meps_per_second=meps_per_second,
                          events_per_second=meps_per_second * p)
    return doc


def test_mep_rate_beside_the_event_rate(tmp_path):
    points = [({"fragment.events": p}, with_meps(synthetic.result("tcp", x, fragment__events=p), p, r))
              for p, x, r in ((1000, 20.0, 30.0), (1000, 20.2, 32.0), (100, 10.0, 250.0))]
    out = synthetic.campaign(tmp_path / "meps", points, ["fragment.events"])
    _, md = report(out)
    rows = dict((r["fragment.events"], r) for r in md_table(md, "Configurations"))
    assert rows["1000"]["MEPs/s"] == "31" and rows["1000"]["events/s"] == "31000"
    assert rows["100"]["MEPs/s"] == "250" and rows["100"]["events/s"] == "25000"
    assert "meps_per_second" not in csv_rows(out)[0]


def test_no_mep_column_without_meps(tmp_path):
    points = [({"fragment.size": s}, synthetic.result("tcp", x, fragment__size=s))
              for s, x in ((65536, 10.0), (1048576, 30.0))]
    _, md = report(synthetic.campaign(tmp_path / "plain", points, ["fragment.size"]))
    assert all("MEPs/s" not in r for r in md_table(md, "Configurations"))
