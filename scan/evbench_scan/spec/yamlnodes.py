"""YAML nodes as the scan grammar reads them: composed with their marks
(line and column), values constructed, mappings walked with duplicate and
non-scalar keys refused, and the "did you mean" of an unknown key.
"""
import difflib

import yaml

from .scanfile import ScanError


def _compose(path, text):
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        return loader, node
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise ScanError(path, mark, "", "not valid YAML: %s" % getattr(err, "problem", err))
    finally:
        loader.dispose()


def _value(loader, node):
    return loader.construct_object(node, deep=True)


def _mapping_items(path, node, key):
    if not isinstance(node, yaml.MappingNode):
        raise ScanError(path, node.start_mark, key, "expected a mapping")
    seen = set()
    for knode, vnode in node.value:
        if not isinstance(knode, yaml.ScalarNode):
            raise ScanError(path, knode.start_mark, key, "keys must be plain names")
        if knode.value in seen:
            raise ScanError(path, knode.start_mark, _join(key, knode.value), "given twice")
        seen.add(knode.value)
        yield knode, vnode


def _join(prefix, key):
    return "%s.%s" % (prefix, key) if prefix else key


def did_you_mean(word, candidates):
    """" (did you mean 'x'?)" for the closest candidate, or "" when none is close."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return " (did you mean '%s'?)" % close[0] if close else ""
