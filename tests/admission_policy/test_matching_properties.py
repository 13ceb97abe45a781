"""Properties of policy matching (staging apiserver ``pkg/admission/plugin/policy/matching``): a
rule of wildcards matches every main-resource request; excluding the rule a request matched
un-matches it; a binding without ``matchResources`` matches whatever its policy matches."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.admissionregistration_v1 import MatchResources, NamedRuleWithOperations
from kbatch.apiserver.admission_plugins.policy_matching import Attributes, match_resources, rule_matches

names = st.sampled_from(["", "batch", "apps", "jobset.x-k8s.io"])
attributes = st.builds(
    Attributes,
    operation=st.sampled_from(["CREATE", "UPDATE"]),
    group=names,
    version=st.sampled_from(["v1", "v1beta1"]),
    resource=st.sampled_from(["jobs", "pods", "jobsets"]),
    subresource=st.just(""),
    name=st.sampled_from(["", "a", "b"]),
    namespace=st.sampled_from(["", "default"]),
    namespaced=st.booleans(),
    is_namespace_kind=st.just(False),
    labels=st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from(["x", "y"])),
    old_labels=st.none(),
)
WILD = NamedRuleWithOperations(
    operations=["*"], api_groups=["*"], api_versions=["*"], resources=["*"], scope="*"
)


@given(attributes)
def test_a_wildcard_rule_matches_every_main_resource_request(attrs: Attributes) -> None:
    assert rule_matches(WILD, attrs, equivalent=False)
    assert match_resources(MatchResources(resource_rules=[WILD]), attrs, {})


@given(attributes)
def test_excluding_what_matched_unmatches(attrs: Attributes) -> None:
    own = NamedRuleWithOperations(
        operations=[attrs.operation],
        api_groups=[attrs.group],
        api_versions=[attrs.version],
        resources=[attrs.resource],
    )
    assert match_resources(MatchResources(resource_rules=[own]), attrs, {})
    assert not match_resources(MatchResources(resource_rules=[WILD], exclude_resource_rules=[own]), attrs, {})


@given(attributes)
def test_no_match_resources_matches_everything(attrs: Attributes) -> None:
    assert match_resources(None, attrs, None)
