"""Kernel names as Nsight Compute's ``-k`` takes them: a plain NAME is an exact function or demangled name (a unique
part of one as a fallback), ``regex:PATTERN`` a regular expression; the same rule for diagnose, roofline, source and
compare. The library's ``kernel_regex=`` stays a regular expression."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.analysis.compare import compare
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.selection import exact_names, listed, match, match_kernels, select_kernels
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig

ESMM = CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep"
HEAT = CORPUS_NCU / "bautista-garcia__heat_sim__report_name.ncu-rep"  # per-instruction data in every launch
WARPTILING = ("void warptiling<(int)128, (int)128, (int)32, (int)64, (int)32, (int)1, (int)8, (int)4, (int)256>"
              "(int, int, int, float *, float *, float *)")
GPU = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})


def _k(index, name, demangled=None, mangled=None, duration_s=1e-3):
    return KernelProfile(index=index, name=name, demangled_name=demangled or name, mangled_name=mangled,
                         device=DeviceInfo(display_name="t"), launch=LaunchConfig(grid=(10, 1, 1), block=(256, 1, 1)),
                         duration_s=duration_s)


KERNELS = [
    _k(0, "basic", "basic(int, const float *)"),
    _k(1, "warptiling", "void warptiling<(int)128, (int)8>(int, float *)", "_Z10warptilingILi128ELi8EEviPf"),
    _k(2, "one_warptiling", "void one_warptiling<(int)128>(int, float *)"),
    _k(3, "warptiling", "void warptiling<(int)64, (int)4>(int, float *)"),
    _k(4, "dist", "void at::native::<unnamed>::dist<float, (int)4>(int, void (*)(int))"),
]


def _indices(kernels):
    return [k.index for k in kernels]


# ------------------------------------------------------------------------------ the rule, by hand


def test_exact_names_strip_return_type_parameters_and_template_arguments():
    assert exact_names(_k(0, "foo", "void foo<int>(float *)")) == ("foo", "void foo<int>(float *)", "foo<int>")
    assert exact_names(KERNELS[4]) == ("dist", KERNELS[4].demangled_name, "at::native::<unnamed>::dist<float, (int)4>",
                                       "at::native::<unnamed>::dist")
    assert exact_names(_k(0, "ampere_sgemm")) == ("ampere_sgemm",)
    assert "_Z10warptilingILi128ELi8EEviPf" in exact_names(KERNELS[1])


def test_plain_name_is_exact():
    assert _indices(match_kernels(KERNELS, "warptiling")) == [1, 3]  # both instantiations of the function
    assert _indices(match_kernels(KERNELS, "one_warptiling")) == [2]
    assert _indices(match_kernels(KERNELS, "warptiling<(int)64, (int)4>")) == [3]
    assert _indices(match_kernels(KERNELS, "void warptiling<(int)64, (int)4>(int, float *)")) == [3]
    assert _indices(match_kernels(KERNELS, "at::native::<unnamed>::dist")) == [4]
    assert _indices(match_kernels(KERNELS, "_Z10warptilingILi128ELi8EEviPf")) == [1]
    assert match_kernels(KERNELS, "Warptiling") == []  # case matters, as in Nsight Compute


def test_plain_name_falls_back_to_a_unique_part():
    assert _indices(match_kernels(KERNELS, "bas")) == [0]
    assert _indices(match_kernels(KERNELS, "one_warp")) == [2]
    assert _indices(match_kernels(KERNELS, "(int)64")) == [3]
    assert match_kernels(KERNELS, "zzz") == []


def test_ambiguous_part_lists_the_candidates():
    with pytest.raises(InputError) as exc:
        match_kernels(KERNELS, "warp", "r.ncu-rep")
    text = str(exc.value)
    assert text.startswith("r.ncu-rep: --kernel 'warp' is ambiguous")
    assert "2 kernel names: warptiling, one_warptiling" in text and "'regex:warp' to select them all" in text
    with pytest.raises(InputError, match="give one exact name$"):
        match(KERNELS, "warp", lambda k: k, "r.ncu-rep", "--pair (after)", one=True)


def test_regex_prefix_searches_and_empty_name_is_refused():
    assert _indices(match_kernels(KERNELS, "regex:warptiling")) == [1, 2, 3]
    assert _indices(match_kernels(KERNELS, "regex:^warptiling$")) == [1, 3]
    assert _indices(match_kernels(KERNELS, "regex:")) == [0, 1, 2, 3, 4]
    with pytest.raises(InputError, match="invalid regular expression"):
        match_kernels(KERNELS, "regex:(")
    with pytest.raises(InputError, match="expected a kernel name"):
        match_kernels(KERNELS, "")


def test_library_kernel_regex_is_still_a_regex():
    assert _indices(select_kernels(KERNELS, kernel_regex="warptiling")) == [1, 2, 3]
    assert _indices(select_kernels(KERNELS, kernel="warptiling")) == [1, 3]
    assert _indices(select_kernels(KERNELS, kernel_regex="one_", kernel="one_warptiling")) == [2]


def test_listed_is_short():
    assert listed([]) == "none"
    assert listed(["a", "b", "a"]) == "a, b"
    assert listed([f"k{i}" for i in range(7)], shown=2) == "k0, k1, ... (7 names)"
    assert len(listed(["x" * 100], width=40)) == 40 and "\n" not in listed(["a\nb"])


def test_compare_pairs_by_name_or_by_regex():
    before = [diagnose(k, GPU) for k in KERNELS[:3]]
    after = [diagnose(k, GPU) for k in KERNELS[:3]]
    c = compare(before, after, [("basic", "one_warptiling")], program=False, pair_rule="name")
    assert [(p.before_name, p.after_name) for p in c.pairs if p.matched_by == "hand"] == [("basic", "one_warptiling")]
    with pytest.raises(InputError, match="must select exactly one kernel name"):  # the old rule: both match
        compare(before, after, [("basic", "warptiling")], program=False)
    c = compare(before, after, [("basic", "warptiling")], program=False, pair_rule="name")
    assert c.pairs[0].after_name == "warptiling"
    with pytest.raises(InputError, match="ambiguous"):
        compare(before, after, [("basic", "warp")], program=False, pair_rule="name")
    with pytest.raises(InputError, match="pair_rule"):
        compare(before, after, [], pair_rule="glob")


# ------------------------------------------------------------------------------ the commands, on the corpus


def _diagnosed(capsys, *args):
    code = main(["diagnose", str(need(ESMM)), *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return [(x["index"], x["name"]) for x in json.loads(out)["inputs"][0]["launches"]]


def test_diagnose_kernel_exact_name(capsys):
    pytest.importorskip("ncu_report")
    assert _diagnosed(capsys, "--kernel", "warptiling") == [(7, "warptiling")]
    assert _diagnosed(capsys, "--kernel", "one_warptiling") == [(8, "one_warptiling")]
    assert _diagnosed(capsys, "--kernel", "regex:warptiling") == [(7, "warptiling"), (8, "one_warptiling")]


def test_diagnose_kernel_demangled_name_with_and_without_parameters(capsys):
    pytest.importorskip("ncu_report")
    assert _diagnosed(capsys, "--kernel", WARPTILING) == [(7, "warptiling")]
    assert _diagnosed(capsys, "--kernel", WARPTILING.removeprefix("void ").partition("(int, ")[0]) == [(7, "warptiling")]


def test_diagnose_kernel_ambiguous_and_unknown(capsys):
    pytest.importorskip("ncu_report")
    path = need(ESMM)
    assert main(["diagnose", str(path), "--kernel", "warp"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--kernel 'warp' is ambiguous" in err[0]
    assert "warptiling, one_warptiling" in err[0] and "regex:warp" in err[0]
    assert main(["diagnose", str(path), "--kernel", "zzz"]) == 2
    assert "no kernel matches --kernel 'zzz'" in capsys.readouterr().err
    assert _diagnosed(capsys, "--kernel", "vectorized") == [(5, "vectorized_blocktiling")]  # a unique part


def test_library_kernel_regex_on_a_report():
    pytest.importorskip("ncu_report")
    from kernelscope.api import diagnose_file

    path = need(ESMM)
    assert _indices(d.kernel for d in diagnose_file(path, kernel_regex="warptiling").kernels) == [7, 8]
    assert _indices(d.kernel for d in diagnose_file(path, kernel="warptiling").kernels) == [7]


def test_compare_one_report_two_kernels(capsys):
    pytest.importorskip("ncu_report")
    path = need(ESMM)
    assert main(["compare", str(path), "--before-kernel", "basic", "--after-kernel", "warptiling", "--format", "json"]) == 0
    (k,) = json.loads(capsys.readouterr().out)["kernels"]
    assert (k["before_name"], k["after_name"], k["matched_by"]) == ("basic", "warptiling", "hand")
    assert main(["compare", str(path), "--before-kernel", "basic", "--after-kernel", "warp"]) == 2
    err = capsys.readouterr().err
    assert "--after-kernel 'warp' is ambiguous" in err and "warptiling, one_warptiling" in err
    assert main(["compare", str(path), str(path), "--pair", "basic=regex:warptiling"]) == 2
    assert "must select exactly one kernel name" in capsys.readouterr().err


def test_roofline_kernel(capsys, tmp_path):
    pytest.importorskip("ncu_report")
    path = need(ESMM)
    one, both = tmp_path / "one.svg", tmp_path / "both.svg"
    assert main(["roofline", str(path), "--kernel", "warptiling", "-o", str(one)]) == 0
    assert main(["roofline", str(path), "--kernel", "regex:warptiling", "-o", str(both)]) == 0
    assert "warptiling" in one.read_text() and "one_warptiling" not in one.read_text()
    assert "one_warptiling" in both.read_text()
    capsys.readouterr()
    assert main(["roofline", str(path), "--kernel", "warp", "-o", str(tmp_path / "x.svg")]) == 2
    assert "is ambiguous" in capsys.readouterr().err and not (tmp_path / "x.svg").exists()


def test_source_kernel(capsys):
    pytest.importorskip("ncu_report")
    from kernelscope.api import source_file

    path = need(HEAT)
    assert [s.kernel.index for s in source_file(path, kernel="reduction_kernel", top=1).launches] == [3]
    assert [s.kernel.index for s in source_file(path, kernel="regex:_", top=1).launches] == [0, 1, 2, 3]
    assert [s.kernel.index for s in source_file(path, kernel_regex="ion", top=1).launches] == [1, 3]  # still a regex
    with pytest.raises(InputError, match="'ion' is ambiguous.*actualizar_simulacion, reduction_kernel"):
        source_file(path, kernel="ion")
    assert main(["source", str(path), "--kernel", "mantener_fuentes_de_calor", "--top", "1", "--format", "json"]) == 0
    assert [x["index"] for x in json.loads(capsys.readouterr().out)["launches"]] == [0, 2]
    assert main(["source", str(path), "--kernel", "ion"]) == 2
    assert "is ambiguous" in capsys.readouterr().err
