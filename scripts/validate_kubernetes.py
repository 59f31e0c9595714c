"""Validates Kubernetes manifests offline; run it through scripts/validate-kubernetes, which makes its venv.

    validate_kubernetes.py --kubernetes-version 1.33 [FILE...]
        Every document of every FILE (default: deploy/kubernetes/*.yaml), strictly: an unknown field
        is an error, as it is for `kubectl apply` with the API server's strict field validation.
        Built-in kinds are checked against the Kubernetes OpenAPI schemas that the kubernetes-validate
        package ships (its `-local-strict` set, no network); custom resources against the CRD schemas in
        deploy/kubernetes/schemas/, named KIND-GROUP-VERSION.json (`scaledobject-keda.sh-v1alpha1.json`).
        Prints `ok  FILE  Kind/name` per valid document, `FAIL  FILE  Kind/name  PATH: MESSAGE` per error,
        and exits 1 when anything failed.

    validate_kubernetes.py extract-crd --source TEXT < CRD.yaml
        Writes each version's spec.versions[].schema.openAPIV3Schema of a CustomResourceDefinition to
        deploy/kubernetes/schemas/KIND-GROUP-VERSION.json, TEXT (where it came from) in its "$comment".

A CRD schema is made strict the way the API server prunes: an object that lists properties, or lists
none and has no additionalProperties, takes no other field unless it has
x-kubernetes-preserve-unknown-fields. Its metadata is checked as Kubernetes' ObjectMeta. CEL rules
(x-kubernetes-validations) are evaluated by the Python equivalents in CEL_RULES; a schema with a rule
not in that table is refused, so that an updated CRD cannot bring a check that silently never runs.
"""

import argparse
import importlib.resources
import json
import re
import sys
from pathlib import Path

import jsonschema
import referencing
import yaml

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = ROOT / "deploy" / "kubernetes"
CRD_SCHEMAS = MANIFESTS / "schemas"
DEFINITIONS_ID = "https://kubernetes.io/api/_definitions.json"
OBJECT_META = DEFINITIONS_ID + "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

# CEL rules of the CRD schemas, by their text with whitespace collapsed, as Python on the object
# (`self`) they are attached to: true when the object is valid.
CEL_RULES = {
    # keda.sh ScaledObject .spec
    "!has(self.minReplicaCount) || self.minReplicaCount <= (has(self.maxReplicaCount) ? self.maxReplicaCount : 100)":
        lambda self: "minReplicaCount" not in self or self["minReplicaCount"] <= self.get("maxReplicaCount", 100),
}

# Workload kinds whose spec.selector must select the labels of spec.template: the API server refuses
# them otherwise, and the schema cannot say so.
SELECTED_TEMPLATES = {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"}


class Failure(Exception):
    pass


class NoSchema(Failure):
    pass


# --- YAML, read as the API machinery reads it -------------------------------------------------------


class Loader(yaml.SafeLoader):
    """YAML 1.1 like Kubernetes' sigs.k8s.io/yaml, but refusing duplicate keys (kubectl does too) and
    keeping timestamps as the strings they are in JSON."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, (list, dict)):
                    continue
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark, f"found duplicate key {key!r}",
                        key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)


Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))
Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


# --- schemas ----------------------------------------------------------------------------------------


def int_format(bits):
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return lambda value: not isinstance(value, int) or isinstance(value, bool) or low <= value <= high


FORMATS = jsonschema.FormatChecker(formats=())
FORMATS.checks("int32")(int_format(32))
FORMATS.checks("int64")(int_format(64))


def cel_keyword(validator, rules, instance, schema):
    if not isinstance(instance, dict):
        return
    for rule in rules:
        try:
            valid = CEL_RULES[" ".join(rule["rule"].split())](instance)
        except (TypeError, KeyError):
            continue  # a field of the wrong type, which the type check reports
        if not valid:
            yield jsonschema.ValidationError(rule.get("message") or f"failed the rule {rule['rule']}")


CRDValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"x-kubernetes-validations": cel_keyword})


def strict_crd_schema(node, path="", root=True):
    """The CRD's openAPIV3Schema, with the API server's pruning made an error and nullable spelt out."""
    node = dict(node)
    for rule in node.get("x-kubernetes-validations", []):
        if " ".join(rule["rule"].split()) not in CEL_RULES:
            raise Failure(f"{path or '.'} has the CEL rule {rule['rule']!r}, which CEL_RULES in "
                          f"{Path(__file__).name} has no Python equivalent of: add one")
    if node.get("nullable") and "type" in node:
        node["type"] = [node["type"], "null"]
    if "properties" in node:
        node["properties"] = {
            name: strict_crd_schema(child, f"{path}.{name}", False) for name, child in node["properties"].items()}
    if isinstance(node.get("items"), dict):
        node["items"] = strict_crd_schema(node["items"], f"{path}[]", False)
    if isinstance(node.get("additionalProperties"), dict):
        node["additionalProperties"] = strict_crd_schema(node["additionalProperties"], f"{path}{{}}", False)
    for keyword in ("anyOf", "allOf", "oneOf"):
        if keyword in node:
            node[keyword] = [strict_crd_schema(child, path, False) for child in node[keyword]]
    if (node.get("type") == "object" and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        node["additionalProperties"] = False
    if root:
        node.setdefault("properties", {})["metadata"] = {"$ref": OBJECT_META}
    return node


def schema_name(kind, api_version):
    """`Deployment`, `apps/v1` -> `deployment-apps-v1`; `ConfigMap`, `v1` -> `configmap-v1`
    (kubernetes-validate's names, keeping only the group's first label); `keda.sh/v1alpha1` keeps its
    whole group for a CRD schema."""
    builtin = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{builtin}", f"{kind.lower()}-{api_version.replace('/', '-')}"


class Schemas:
    def __init__(self, kubernetes_version):
        versions = importlib.resources.files("kubernetes_validate") / "kubernetes-json-schema"
        wanted = re.sub(r"^v?(\d+\.\d+)(\.\d+)?$", r"\1", kubernetes_version)
        self.directory = versions / f"v{wanted}.0-local-strict"
        if not self.directory.is_dir():
            shipped = sorted((p.name.split("-")[0] for p in versions.iterdir() if p.name.endswith("-local-strict")),
                             key=lambda v: [int(n) for n in v[1:].split(".")])
            raise Failure(f"kubernetes-validate has no schemas for Kubernetes {kubernetes_version}; "
                          f"it has {shipped[0]} to {shipped[-1]}")
        self.version = wanted
        definitions = json.loads((self.directory / "_definitions.json").read_text())
        self.registry = referencing.Registry().with_resource(
            DEFINITIONS_ID, referencing.Resource.from_contents(definitions))
        self.validators = {}

    def validator(self, kind, api_version):
        builtin, custom = schema_name(kind, api_version)
        if (kind, api_version) not in self.validators:
            crd = CRD_SCHEMAS / f"{custom}.json"
            group = api_version.rpartition("/")[0]
            file = self.directory / f"{builtin}.json" if "." not in group or group.endswith(".k8s.io") else None
            if crd.is_file():
                schema = strict_crd_schema(json.loads(crd.read_text()))
                validator = CRDValidator(schema, registry=self.registry, format_checker=FORMATS)
            elif file is not None and file.is_file():
                schema = json.loads(file.read_text())
                validator = jsonschema.Draft202012Validator(
                    schema, registry=self.registry.with_resource(
                        schema["$id"], referencing.Resource.from_contents(schema)), format_checker=FORMATS)
            else:
                validator = None
            self.validators[(kind, api_version)] = validator
        validator = self.validators[(kind, api_version)]
        if validator is None:
            raise NoSchema(f"no schema for {kind} in {api_version}: not a kind of Kubernetes {self.version}, "
                          f"and no {CRD_SCHEMAS.relative_to(ROOT)}/{custom}.json")
        return validator


# --- validation -------------------------------------------------------------------------------------


def where(error):
    path = ""
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(document)"


def short(text, limit=400):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def problems(document, schemas):
    """What is wrong with one document, as `PATH: MESSAGE` lines."""
    kind, api_version = document.get("kind"), document.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str):
        return ["(document): needs apiVersion and kind, as strings"]
    try:
        validator = schemas.validator(kind, api_version)
    except NoSchema as failure:
        return [f"apiVersion: {failure}"]
    found = [f"{where(e)}: {short(e.message)}"
             for e in sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])]
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    if not metadata.get("name") and not metadata.get("generateName"):
        found.append("metadata.name: is required")
    if kind in SELECTED_TEMPLATES and not found:
        spec = document.get("spec") or {}
        selector = spec.get("selector") or {}
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        missing = {k: v for k, v in (selector.get("matchLabels") or {}).items() if labels.get(k) != v}
        if missing:
            found.append(f"spec.selector.matchLabels: selects {missing}, which spec.template.metadata.labels "
                         "do not have (the API server refuses this)")
    return found


def validate(files, schemas):
    total, failed, seen = 0, 0, {}
    for file in files:
        try:
            text = file.read_text()
            documents = [d for d in yaml.load_all(text, Loader=Loader) if d is not None]
        except (OSError, yaml.YAMLError) as error:
            mark = getattr(error, "problem_mark", None)
            if mark is not None:
                error = f"line {mark.line + 1}, column {mark.column + 1}: {error.problem}"
            print(f"FAIL  {display(file)}  {short(error, 1000)}")
            total += 1
            failed += 1
            continue
        for index, document in enumerate(documents, 1):
            total += 1
            if not isinstance(document, dict):
                name, found = f"document {index}", ["(document): not a mapping"]
            else:
                metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
                name = f"{document.get('kind', f'document {index}')}/{metadata.get('name', '(no name)')}"
                found = problems(document, schemas)
                key = (str(document.get("apiVersion", "")).split("/")[0], document.get("kind"),
                       metadata.get("namespace"), metadata.get("name"))
                if key in seen and metadata.get("name"):
                    found.append(f"metadata.name: {name} is defined twice (also in {seen[key]})")
                seen.setdefault(key, display(file))
            if found:
                failed += 1
                for problem in found:
                    print(f"FAIL  {display(file)}  {name}  {problem}")
            else:
                print(f"ok  {display(file)}  {name}")
    return total, failed


def display(file):
    try:
        return str(file.resolve().relative_to(ROOT))
    except ValueError:
        return str(file)


def extract_crd(source):
    crd = yaml.load(sys.stdin, Loader=Loader)
    if crd.get("kind") != "CustomResourceDefinition":
        raise Failure("standard input is not a CustomResourceDefinition")
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    CRD_SCHEMAS.mkdir(parents=True, exist_ok=True)
    for version in crd["spec"]["versions"]:
        schema = version["schema"]["openAPIV3Schema"]
        strict_crd_schema(schema)  # refuses CEL rules that CEL_RULES lacks
        comment = (f"{kind} {group}/{version['name']}: spec.versions[].schema.openAPIV3Schema of {source}, "
                   "unchanged; scripts/validate_kubernetes.py makes it strict.")
        target = CRD_SCHEMAS / f"{kind.lower()}-{group}-{version['name']}.json"
        target.write_text(json.dumps({"$comment": comment, **schema}, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {display(target)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubernetes-version", default="1.33")
    parser.add_argument("--source", help="extract-crd: where the CRD came from")
    parser.add_argument("files", nargs="*", help="manifests, or `extract-crd`")
    arguments = parser.parse_args()
    try:
        if arguments.files[:1] == ["extract-crd"]:
            if not arguments.source:
                parser.error("extract-crd needs --source")
            extract_crd(arguments.source)
            return 0
        files = [Path(f) for f in arguments.files] or sorted(MANIFESTS.glob("*.yaml"))
        if not files:
            raise Failure(f"no manifests in {display(MANIFESTS)}")
        total, failed = validate(files, Schemas(arguments.kubernetes_version))
    except Failure as failure:
        print(f"validate-kubernetes: {failure}", file=sys.stderr)
        return 2
    if failed:
        print(f"validate-kubernetes: {failed} of {total} documents failed (Kubernetes {arguments.kubernetes_version})",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
