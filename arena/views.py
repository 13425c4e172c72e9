from django.http import HttpResponse


def home(request):
    return HttpResponse("home")


def methodology(request):
    return HttpResponse("methodology")


def arena_detail(request, arena):
    return HttpResponse("arena")


def head_to_head(request, arena, a, b):
    return HttpResponse("h2h")


def product_detail(request, arena, product):
    return HttpResponse("product")


def story_detail(request, arena, story):
    return HttpResponse("story")


def cell_detail(request, cell):
    return HttpResponse("cell")
